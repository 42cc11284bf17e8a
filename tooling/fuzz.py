"""Fuzzing the server: random and mutated MessagePack frames sent to a live server, each answer checked.

Three parts, each usable alone:

* **One frame generator**, `fuzz_frame`, written against a tiny source of choices (`Source`:
  ``integer``, ``pick``, ``data``), so that the same code serves a long campaign (`RandomSource`,
  from `random.Random`) and a hypothesis property test (an adapter over ``st.data()``, which lets
  hypothesis shrink a failing frame). It makes, by weight: valid client messages of every type
  with plausible values; valid messages with one field broken (wrong type, out of range, huge
  integers, NaN, deep nesting, long strings, bin, extension types, an unknown field, a field
  left out); hostile raw MessagePack (deep nesting, lengths declared up to 2**32-1 with little
  data behind them, extension types, uint64 and int64 extremes, non-string and duplicate keys,
  thousands of nils, truncated frames, trailing garbage, bit flips, random bytes, the empty
  frame); and now and then a text frame. Every frame fits ``max_bytes`` unless asked to be
  oversize.
* **An oracle**, `check_answer`: which frames answer a request (`ANSWER_TYPES`; events are not
  answers), and whether an answer is right for the frame sent: an `Error` whose code is the one
  `server.protocol.decode` gives and whose ``req`` echoes the frame's, or the reply type that
  the request calls for, echoing its ``req`` (a move: a `MoveResult` for its race and ``seq``).
* **A campaign**, `run_campaign`: its own server in a separate process (or one given by URL),
  ``connections`` fuzzing connections that each say hello and then send frames in lockstep (one
  frame, then its answer), a bystander race played throughout, the server's resident memory
  sampled, its log read for tracebacks, and its ``/healthz`` counts at the end. `add_fuzz_arguments`
  and `run_fuzz` make it the ``arena fuzz`` command.

Requests the server may hold: a ``create_race`` or ``create_tournament`` asking for ``winnable``
deals waits up to the server's ``winnable_wait_s`` for the solver before it is answered, which is
no fault. The campaign's own server runs with short winnable budgets (`_FUZZ_LIMITS`:
``winnable_wait_s`` 2 s, ``winnable_seconds`` 0.5 s), so that such requests do not slow the
flood; and each such frame may take ``hold_s`` seconds (that ``winnable_wait_s``, or a given
server's default, 10 s) on top of the answer timeout before it counts as unanswered
(`answer_limit_s`). At the end the campaign stops every process it started: the child server's
whole process group, its par workers included (`tooling.server_process.ServerProcess.stop`).

>>> import random
>>> source = RandomSource(random.Random(7))
>>> frames = [fuzz_frame(source, races=["ABC234"]) for _ in range(200)]
>>> all(len(f.encode() if isinstance(f, str) else f) <= 4096 for f in frames)
True
>>> oversize = fuzz_frame(source, oversize=True)
>>> len(oversize.encode() if isinstance(oversize, str) else oversize) > 4096
True
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import itertools
import json
import math
import random
import re
import secrets
import struct
import time
from collections import Counter, deque
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar

import msgspec
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from client.arguments import bounded
from engine.core import IllegalCode
from engine.deal import MAX_SEED
from engine.games import GAMES
from server.config import ServerConfig
from server.protocol import (
    MAX_FRAME_BYTES,
    Bonus,
    BonusMove,
    CalendarPage,
    CancelTournament,
    Challenge,
    Claim,
    Claimed,
    ClientMessage,
    CreateRace,
    CreateTournament,
    DailyCalendar,
    DailyInfo,
    Decline,
    Declined,
    DoubleOrNaught,
    Error,
    ErrorCode,
    FairPlayReport,
    FairPlayRequest,
    Follow,
    Following,
    FollowTournament,
    ForgetMe,
    Forgotten,
    Friends,
    GetDaily,
    GetProfile,
    GetRecord,
    GrantOrganiser,
    Hello,
    History,
    HistoryPage,
    JoinRace,
    Leaderboard,
    LeaderboardPage,
    ListRaces,
    ListTournaments,
    Login,
    MoveRequest,
    MoveResult,
    OpenDeal,
    Organiser,
    PasskeyBegin,
    PasskeyFinish,
    PasskeyOptions,
    PlayDaily,
    Profile,
    ProtocolError,
    RaceRecord,
    RaceReply,
    Races,
    RaceStarted,
    Redeem,
    RegisterTournament,
    Rematch,
    Rename,
    Renamed,
    Replay,
    ReplayStep,
    Resign,
    ReviewEntry,
    Snapshot,
    StartRace,
    Sync,
    SyncPage,
    TournamentReply,
    Tournaments,
    TournamentSnapshot,
    TransferCode,
    TransferCodeRequest,
    Unfollow,
    Watch,
    Welcome,
    WithdrawTournament,
    decode,
    decode_server,
    encode,
    request_number,
)
from tooling.server_process import ServerProcess, ServerProcessError, fetch_health

__all__ = [
    "ANSWER_TYPES",
    "Failure",
    "Figures",
    "RandomSource",
    "Source",
    "add_fuzz_arguments",
    "answer_limit_s",
    "asks_winnable",
    "check_answer",
    "fuzz_frame",
    "print_figures",
    "run_campaign",
    "run_fuzz",
    "send_frame",
]

T = TypeVar("T")

# ============================================================================ sources of choices


class Source(Protocol):
    """Where the generator's choices come from: a random generator, or hypothesis (which can
    then shrink a failing frame: smaller integers and earlier options are simpler)."""

    def integer(self, lo: int, hi: int) -> int:
        """An integer from ``lo`` to ``hi``, both included."""

    def pick(self, options: Sequence[T]) -> T:
        """One of ``options`` (a non-empty sequence)."""

    def data(self, size: int) -> bytes:
        """``size`` arbitrary bytes."""


class RandomSource:
    """A `Source` backed by a `random.Random` (seed it for a reproducible campaign)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def integer(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def pick(self, options: Sequence[T]) -> T:
        return options[self.rng.randrange(len(options))]

    def data(self, size: int) -> bytes:
        return self.rng.randbytes(size)


def _weighted(source: Source, table: Sequence[tuple[int, T]]) -> T:
    """One value of ``table`` (pairs of weight and value), in proportion to its weight; the
    first entry is what a shrinking source falls back to."""
    roll = source.integer(0, sum(weight for weight, _ in table) - 1)
    for weight, value in table:
        if roll < weight:
            return value
        roll -= weight
    raise AssertionError("unreachable")


# ============================================================================ raw MessagePack


def _pack(value: object) -> bytes:
    return msgspec.msgpack.encode(value)


def _header(kind: str, n: int) -> bytes:
    """The header of a map, array, str or bin of ``n`` entries (or bytes), in its smallest form."""
    fix = {"map": 0x80, "array": 0x90, "str": 0xA0}
    wide = {
        "map": (None, 0xDE, 0xDF),
        "array": (None, 0xDC, 0xDD),
        "str": (0xD9, 0xDA, 0xDB),
        "bin": (0xC4, 0xC5, 0xC6),
    }[kind]
    if kind in fix and n < (32 if kind == "str" else 16):
        return bytes([fix[kind] | n])
    if n < 256 and wide[0] is not None:
        return bytes([wide[0], n])
    if n < 65536:
        return bytes([wide[1]]) + struct.pack(">H", n)
    return bytes([wide[2]]) + struct.pack(">I", n)


def _map(pairs: Sequence[tuple[bytes, bytes]]) -> bytes:
    """A map from already-encoded keys and values (duplicates and odd keys stay as given)."""
    return _header("map", len(pairs)) + b"".join(k + v for k, v in pairs)


def _text(n: int, fill: bytes = b"a") -> bytes:
    return _header("str", n) + fill * n


#: Encoded values of the wrong type for almost any field.
_WRONG_TYPES = tuple(
    _pack(v)
    for v in (
        None,
        True,
        False,
        0,
        -1,
        1.5,
        float("nan"),
        float("inf"),
        float("-inf"),
        -0.0,
        "",
        "x",
        "0",
        "null",
        b"",
        b"\x00",
        [],
        {},
        [1, 2, 3],
        {"a": 1},
        "\u202e",
        "\x00",
    )
) + (b"\xca\x7f\xc0\x00\x00",)  # a float32 NaN

#: Encoded integers at and past every edge a field might check.
_EDGE_INTEGERS = (
    b"\xcf" + b"\xff" * 8,  # 2**64 - 1
    b"\xd3\x80" + b"\x00" * 7,  # -2**63
    b"\xcf\x80" + b"\x00" * 7,  # 2**63
    b"\xd3\x7f" + b"\xff" * 7,  # 2**63 - 1 (int64 form)
    b"\xce\xff\xff\xff\xff",  # 2**32 - 1
    b"\xce\x80\x00\x00\x00",  # 2**31
    b"\xd2\x80\x00\x00\x00",  # -2**31
    b"\xcf\x00\x20\x00\x00\x00\x00\x00\x01",  # 2**53 + 1
    b"\xce\x00\x0f\x42\x41",  # 1_000_001
    b"\xcc\x41",  # 65 in a wider form than needed
    b"\xff",  # -1
    b"\xd0\x80",  # -128
    b"\xd1\x80\x00",  # -32768
)

#: Strings that are not valid UTF-8 (a lone continuation, a surrogate, an overlong slash, a cut).
_BAD_UTF8 = (b"\xa1\x80", b"\xa3\xed\xa0\x80", b"\xa2\xc0\xaf", b"\xa2\xe2\x82", b"\xa4\xf8\x88\x80\x80", b"\xa3ab\xff")

#: Headers that declare a large size (the last bytes say how much follows, or the type of an ext).
_HUGE_HEADERS = (
    b"\xdf",
    b"\xdd",
    b"\xdb",
    b"\xc6",
    b"\xde",
    b"\xdc",
    b"\xda",
    b"\xc5",
    b"\xd9",
    b"\xc4",
    b"\xc9",
    b"\xc8",
    b"\xc7",
)


def _huge_declared(source: Source) -> bytes:
    """A map32/array32/str32/bin32/ext32 (or smaller) header that declares up to 2**32-1 entries
    or bytes, followed by a few bytes of data."""
    head = source.pick(_HUGE_HEADERS)
    width = {0xDF: 4, 0xDD: 4, 0xDB: 4, 0xC6: 4, 0xC9: 4, 0xDE: 2, 0xDC: 2, 0xDA: 2, 0xC5: 2, 0xC8: 2}.get(head[0], 1)
    top = 2 ** (8 * width) - 1
    size = source.pick((top, top - 1, top // 2 + 1, source.integer(1, top)))
    body = head + size.to_bytes(width, "big")
    if head[0] in (0xC7, 0xC8, 0xC9):
        body += bytes([source.integer(0, 255)])  # an ext's type
    return body + source.data(source.integer(0, 8))


def _extension(source: Source) -> bytes:
    """An extension value: fixext 1..16, ext 8/16/32, or a timestamp (type -1) valid or not."""
    kind = source.integer(0, 4)
    ext_type = bytes([source.integer(0, 255)])
    if kind == 0:  # fixext 1, 2, 4, 8, 16
        size = source.pick((1, 2, 4, 8, 16))
        return bytes([{1: 0xD4, 2: 0xD5, 4: 0xD6, 8: 0xD7, 16: 0xD8}[size]]) + ext_type + source.data(size)
    if kind == 1:  # ext 8/16/32 of a few bytes
        size = source.integer(0, 24)
        head = source.pick(
            (b"\xc7" + bytes([size]), b"\xc8" + struct.pack(">H", size), b"\xc9" + struct.pack(">I", size))
        )
        return head + ext_type + source.data(size)
    if kind == 2:  # timestamp 32: seconds
        return b"\xd6\xff" + source.data(4)
    if kind == 3:  # timestamp 64: nanoseconds (may be over 999,999,999) and seconds
        return b"\xd7\xff" + source.data(8)
    return source.pick(
        (
            b"\xc7\x0c\xff" + b"\xff" * 12,  # timestamp 96, nanoseconds out of range
            b"\xc7\x0c\xff" + b"\x3b\x9a\xca\x00" + b"\x7f" + b"\xff" * 7,  # 10**9 ns
            b"\xc7\x03\xff\x00\x00\x00",  # a timestamp of a length no timestamp has
            b"\xd4\xff\x00",
        )
    )


def _deep(source: Source, room: int) -> bytes:
    """Nesting as deep as ``room`` bytes allow (up to 3000 levels): arrays, maps, or both."""
    kind = source.integer(0, 2)
    unit = (b"\x91", b"\x81\xa1a", b"\x91\x81\xa1a")[kind]
    depth = source.integer(1, max(1, min(3000, (room - 1) // len(unit))))
    return unit * depth + b"\xc0"


def _nils(source: Source, room: int) -> bytes:
    """An array of thousands of nils, or a map of as many nil keys (as many as ``room`` allows)."""
    if source.integer(0, 1):
        count = source.integer(0, max(0, (room - 5) // 2))
        return _header("map", count) + b"\xc0\xc0" * count
    count = source.integer(0, max(0, room - 5))
    return _header("array", count) + b"\xc0" * count


def _odd_key_map(source: Source) -> bytes:
    """A small map whose keys are not strings: ints, nil, bin, floats, arrays, maps, bools, ext."""
    keys = (
        _pack(1),
        b"\xc0",
        _pack(b"type"),
        _pack(1.5),
        b"\x91\xc0",
        b"\x81\xc0\xc0",
        b"\xc3",
        b"\xd4\x01\x00",
        b"\xcf" + b"\xff" * 8,
        _pack([]),
    )
    count = source.integer(1, 4)
    return _map([(source.pick(keys), _pack("hello")) for _ in range(count)])


def _hostile_value(source: Source, room: int) -> bytes:
    """One encoded value to put in a field: of the wrong type, at an edge, too long, too deep,
    invalid UTF-8, an extension... At most about ``room`` bytes."""
    room = max(room, 16)
    kind = source.integer(0, 10)
    if kind == 0:
        return source.pick(_WRONG_TYPES)
    if kind == 1:
        return source.pick(_EDGE_INTEGERS)
    if kind == 2:  # a long string
        return _text(source.integer(33, max(33, room - 5)), source.pick((b"a", b"\x00", b" ")))
    if kind == 3:  # a long bin
        n = source.integer(0, max(0, room - 5))
        return _header("bin", n) + b"\x00" * n
    if kind == 4:
        return _extension(source)
    if kind == 5:
        return _deep(source, room)
    if kind == 6:
        return _huge_declared(source)
    if kind == 7:
        return _nils(source, room)
    if kind == 8:
        return source.pick(_BAD_UTF8)
    if kind == 9:
        return _odd_key_map(source)
    return _pack(source.pick(([MAX_SEED, 0], {"klondike": True}, ["deal"], {"": False}, [[[]]])))


# ============================================================================ valid messages


@dataclass
class _Pools:
    """Names the generator may use: race codes and tournament ids that exist on the server."""

    races: Sequence[str] = ()
    tournaments: Sequence[str] = ()


_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
_GAME_NAMES = (
    tuple(g.key for g in GAMES)
    + tuple(a for g in GAMES for a in g.aliases)
    + ("chess", "KLONDIKE", "Klondike", "klondike ", "spider", "x" * 32)
)
_OPTIONS: tuple[dict[str, bool], ...] = (
    {},
    {"queen_on_king": True},
    {"queen_on_king": False},
    {"bogus": True},
    {"a": True, "b": False},
)
_NAMES = (
    "ada",
    "Bob Smith",
    "fuzz",
    "Zoë",
    "名前",
    "a" * 32,
    " ",
    "a\u200bb",
    "a\x00b",
    "\u202egnp.exe",
    "ADA",
    "-",
    "x\ty",
    "🂡🂢",
)
_MOVES = (
    "deal",
    "redeal",
    "turn",
    "t3>f0",
    "t3>t5x3",
    "w>t1",
    "w>f2",
    "t0>t0",
    "t99>f9",
    "t3>t5x999",
    "r0>f1",
    "c0>t1",
    "f0>t1",
    "s>w",
    "guess r2",
    "guess r0",
    "guess r9",
    "guess",
    "x",
    "deal deal",
    "DEAL",
    " deal",
    "t3 > f0",
    "🂡",
    "t3>",
    ">f0",
    "t3>t5x0",
    "t3>t5x-1",
    "a" * 40,
    "t1>t2x3x4",
)
_STARTS = (
    "2030-01-01T00:00:00Z",
    "2000-01-01T00:00:00+00:00",
    "2030-13-45T99:00:00Z",
    "tomorrow",
    "",
    "2030-01-01T00:00:00",
)
_CRONS = ("*/5 * * * *", "0 12 * * 1", "61 * * * *", "@hourly", "* * *", "0 0 31 2 *")
_ZONES = ("UTC", "Europe/Paris", "America/New_York", "Mars/Olympus", "", "../../etc/passwd")


def _req(source: Source) -> int:
    return source.integer(0, 2**31 - 1)


def _known(source: Source, pool: Sequence[str]) -> tuple[int, int, str | None]:
    """Two draws, the same whatever the pool holds (so that a shrinking source replays a frame
    alike when the server's codes have changed): a form (0..7), a number (30 bits), and the
    pool's entry they point at for forms 2 to 7, if the pool has any."""
    form, number = source.integer(0, 7), source.integer(0, 2**30 - 1)
    return form, number, (pool[number % len(pool)] if pool and form >= 2 else None)


def _race_code(source: Source, pools: _Pools) -> str:
    """A race code: mostly one the server knows (now and then in lower case), else a made-up one."""
    form, number, known = _known(source, pools.races)
    if known is not None:
        return known.lower() if form == 7 else known
    made = "".join(_CODE_ALPHABET[(number >> (5 * i)) & 31] for i in range(6))
    return (made, made[:1], "Z" * 16, "abc234", "?")[number % 5] if form == 1 else made


def _tournament_id(source: Source, pools: _Pools) -> str:
    """A tournament id: one the server knows, else a made-up one."""
    form, number, known = _known(source, pools.tournaments)
    if known is not None:
        return known
    return ("T000000", "TABCDEF", "S123456", "t", "T" * 16)[number % 5] if form == 1 else f"T{number & 0xFFFFFF:06X}"


def _optional(source: Source, fields: dict[str, object], name: str, make: Callable[[], object]) -> None:
    """Put ``name`` in ``fields`` half the time (a shrinking source leaves it out)."""
    if source.integer(0, 1):
        fields[name] = make()


def _hello(source: Source, pools: _Pools) -> dict[str, object]:
    fields: dict[str, object] = {"name": source.pick(_NAMES)}
    _optional(source, fields, "protocol", lambda: source.pick((1, 1, 2, 0)))
    _optional(source, fields, "token", lambda: source.pick((None, "x", "A" * 32, "A" * 64)))
    _optional(source, fields, "bot", lambda: bool(source.integer(0, 1)))
    return fields


def _rename(source: Source, pools: _Pools) -> dict[str, object]:
    return {"req": _req(source), "name": source.pick(_NAMES)}


def _player_id(source: Source) -> str:
    """A player id: made up (``p`` and twelve hex digits) or malformed; fuzzing players never
    learn each other's."""
    return source.pick(("p" + "0" * 12, "nobody", "x" * 64))


def _follow(source: Source, pools: _Pools) -> dict[str, object]:
    fields: dict[str, object] = {"req": _req(source)}
    _optional(source, fields, "player", lambda: _player_id(source))
    _optional(source, fields, "name", lambda: source.pick(_NAMES))
    return fields


def _challenge(source: Source, pools: _Pools) -> dict[str, object]:
    fields: dict[str, object] = {"req": _req(source), "player": _player_id(source), "game": source.pick(_GAME_NAMES)}
    _optional(source, fields, "options", lambda: source.pick(_OPTIONS))
    return fields


def _leaderboard(source: Source, pools: _Pools) -> dict[str, object]:
    fields: dict[str, object] = {"req": _req(source), "game": source.pick(_GAME_NAMES)}
    _optional(source, fields, "board", lambda: source.pick(("rating", "daily", "elo")))
    _optional(source, fields, "view", lambda: source.pick(("top", "around_me", "friends", "all")))
    _optional(source, fields, "active_days", lambda: source.pick((1, 30, 3650, 0, 3651)))
    _optional(source, fields, "day", lambda: source.pick((None, "2026-01-01", "2026-02-30", "today")))
    _optional(source, fields, "period", lambda: source.pick(("day", "week", "all", "year")))
    _optional(source, fields, "after", lambda: source.pick((None, "0x1.0p+10/p1", "x", "/", "9" * 96)))
    _optional(source, fields, "limit", lambda: source.pick((1, 100, 0, 101)))
    return fields


def _profile(source: Source, pools: _Pools) -> dict[str, object]:
    fields: dict[str, object] = {"req": _req(source)}
    _optional(source, fields, "player", lambda: _player_id(source))
    _optional(source, fields, "name", lambda: source.pick(_NAMES))
    return fields


def _history(source: Source, pools: _Pools) -> dict[str, object]:
    fields: dict[str, object] = {"req": _req(source)}
    _optional(source, fields, "before", lambda: source.pick((None, "0.A", "1700000000000.ABC234", "x", "9" * 64)))
    _optional(source, fields, "limit", lambda: source.pick((1, 100, 0, 101, source.integer(1, 100))))
    return fields


_PASSWORDS = ("correct horse battery", "short", "x" * 256, "pässwörd-ünïcode")


def _claim(source: Source, pools: _Pools) -> dict[str, object]:
    """Always names the name claimed, never a fuzzing connection's own ("fuzzN", "bystander"):
    a claimed name is refused to the guests whose hello asks for it, as it should be."""
    return {"req": _req(source), "password": source.pick(_PASSWORDS), "name": source.pick(_NAMES)}


def _login(source: Source, pools: _Pools) -> dict[str, object]:
    return {"req": _req(source), "name": source.pick(_NAMES), "password": source.pick(_PASSWORDS)}


def _passkey_begin(source: Source, pools: _Pools) -> dict[str, object]:
    fields: dict[str, object] = {"req": _req(source), "purpose": source.pick(("register", "login"))}
    _optional(source, fields, "name", lambda: source.pick(_NAMES))
    return fields


def _passkey_finish(source: Source, pools: _Pools) -> dict[str, object]:
    credential = source.pick(("{}", '{"id": "AAAA", "type": "public-key"}', "not json", "[" * 40))
    return {"req": _req(source), "credential": credential}


def _redeem(source: Source, pools: _Pools) -> dict[str, object]:
    return {"req": _req(source), "code": source.pick(("ABCDE23456", "abcde23456", "0", "Z" * 32))}


_DAYS = ("2026-03-10", "2099-01-01", "2026-02-30", "0000-00-00", "2026-3-1", "")


def _daily(source: Source, pools: _Pools) -> dict[str, object]:
    """play_daily and daily: a game, and a day that may be past, future, impossible or malformed."""
    fields: dict[str, object] = {"req": _req(source), "game": source.pick(_GAME_NAMES)}
    _optional(source, fields, "day", lambda: source.pick(_DAYS))
    return fields


def _daily_calendar(source: Source, pools: _Pools) -> dict[str, object]:
    fields: dict[str, object] = {"req": _req(source), "month": source.pick(("2026-03", "2026-13", "9999-12", "x"))}
    _optional(source, fields, "game", lambda: source.pick(_GAME_NAMES))
    return fields


def _create_race(source: Source, pools: _Pools) -> dict[str, object]:
    fields: dict[str, object] = {"req": _req(source), "game": source.pick(_GAME_NAMES)}
    _optional(source, fields, "seed", lambda: source.pick((None, 0, 42, MAX_SEED, source.integer(0, MAX_SEED))))
    _optional(source, fields, "options", lambda: source.pick(_OPTIONS))
    _optional(source, fields, "max_entrants", lambda: source.integer(1, 64))
    _optional(source, fields, "countdown_s", lambda: source.integer(0, 60))
    _optional(source, fields, "time_limit_s", lambda: source.pick((10, 86_400, source.integer(10, 86_400))))
    _optional(source, fields, "join", lambda: bool(source.integer(0, 1)))
    _optional(source, fields, "winnable", lambda: bool(source.integer(0, 1)))
    _optional(source, fields, "seed_public", lambda: bool(source.integer(0, 1)))
    _optional(source, fields, "spectator_delay_s", lambda: source.integer(0, 600))
    _optional(source, fields, "rated", lambda: bool(source.integer(0, 1)))
    return fields


def _list_races(source: Source, pools: _Pools) -> dict[str, object]:
    fields: dict[str, object] = {"req": _req(source)}
    _optional(source, fields, "status", lambda: source.pick(("open", "live")))
    _optional(source, fields, "before", lambda: source.pick((None, 0, 1, 2**63, 2**64 - 1, source.integer(0, 1000))))
    _optional(source, fields, "limit", lambda: source.integer(1, 100))
    return fields


def _race_request(source: Source, pools: _Pools) -> dict[str, object]:
    return {"req": _req(source), "race": _race_code(source, pools)}


def _move(source: Source, pools: _Pools) -> dict[str, object]:
    seq = source.integer(1, 8) if source.integer(0, 3) else source.pick((1_000_000, source.integer(1, 1_000_000)))
    return {"race": _race_code(source, pools), "seq": seq, "move": source.pick(_MOVES)}


def _sync(source: Source, pools: _Pools) -> dict[str, object]:
    since = source.integer(0, 40) if source.integer(0, 3) else source.pick((2**31, 2**63 - 1, 2**63, 2**64 - 1))
    return {"req": _req(source), "race": _race_code(source, pools), "since": since}


def _replay(source: Source, pools: _Pools) -> dict[str, object]:
    step = source.integer(0, 40) if source.integer(0, 3) else source.pick((1_000_000, source.integer(0, 1_000_000)))
    player = source.pick(("p" + "0" * 8, "p1a2b3c4d", "nobody"))
    return {"req": _req(source), "race": _race_code(source, pools), "player": player, "step": step}


def _bonus_move(source: Source, pools: _Pools) -> dict[str, object]:
    return {
        "req": _req(source),
        "race": _race_code(source, pools),
        "move": source.pick(("guess r2", "guess r0", "guess r4", "deal", "guess r5", "guess")),
    }


def _create_tournament(source: Source, pools: _Pools) -> dict[str, object]:
    deals = source.integer(0, 20)
    fields: dict[str, object] = {
        "req": _req(source),
        "admin_token": source.pick(("secret", "x" * 128, "admin")),
        "name": source.pick(_NAMES),
        "game": source.pick(_GAME_NAMES),
        "deals": deals,
    }
    _optional(source, fields, "format", lambda: source.pick(("rounds", "arena")))
    _optional(source, fields, "starts_at", lambda: source.pick(_STARTS))
    _optional(source, fields, "cron", lambda: source.pick(_CRONS))
    _optional(source, fields, "timezone", lambda: source.pick(_ZONES))
    _optional(source, fields, "options", lambda: source.pick(_OPTIONS))
    _optional(source, fields, "seeds", lambda: [source.integer(0, MAX_SEED) for _ in range(source.pick((deals, 1)))])
    _optional(source, fields, "winnable", lambda: bool(source.integer(0, 1)))
    _optional(source, fields, "deal_time_limit_s", lambda: source.integer(10, 86_400))
    _optional(source, fields, "max_entrants", lambda: source.integer(1, 10_000))
    _optional(source, fields, "countdown_s", lambda: source.integer(0, 600))
    _optional(source, fields, "spectating", lambda: source.pick(("standings", "delayed", "live", "all")))
    _optional(source, fields, "spectator_delay_s", lambda: source.pick((0, 1, 600, 601, 86_400)))
    _optional(source, fields, "max_entries_per_address", lambda: source.pick((0, 1, 10_000, -1)))
    _optional(source, fields, "entry", lambda: source.pick(("open", "claimed", "invite", "list", "closed")))
    _optional(source, fields, "allow", lambda: [source.pick(_NAMES) for _ in range(source.integer(0, 3))])
    _optional(source, fields, "invite_code", lambda: source.pick(("club-night", "abc", "x" * 33, "bad code")))
    return fields


def _grant_organiser(source: Source, pools: _Pools) -> dict[str, object]:
    fields: dict[str, object] = {"req": _req(source), "admin_token": source.pick(("secret", "admin"))}
    _optional(source, fields, "name", lambda: source.pick(_NAMES))
    _optional(source, fields, "player", lambda: source.pick(("p" + "0" * 8, "nobody")))
    _optional(source, fields, "revoke", lambda: bool(source.integer(0, 1)))
    return fields


def _review_entry(source: Source, pools: _Pools) -> dict[str, object]:
    fields = _cancel_tournament(source, pools)
    fields["player"] = source.pick((*_NAMES, "p" + "0" * 8))
    _optional(source, fields, "approve", lambda: bool(source.integer(0, 1)))
    return fields


def _cancel_tournament(source: Source, pools: _Pools) -> dict[str, object]:
    return {
        "req": _req(source),
        "admin_token": source.pick(("secret", "admin")),
        "tournament": _tournament_id(source, pools),
    }


def _tournament_request(source: Source, pools: _Pools) -> dict[str, object]:
    return {"req": _req(source), "tournament": _tournament_id(source, pools)}


#: One builder of plausible fields per client message type (the key is the wire ``type``).
_BUILDERS: dict[str, Callable[[Source, _Pools], dict[str, object]]] = {
    "list_tournaments": lambda source, pools: {"req": _req(source)},
    "hello": _hello,
    "create_race": _create_race,
    "list_races": _list_races,
    "join_race": _race_request,
    "start_race": _race_request,
    "move": _move,
    "resign": _race_request,
    "watch": _race_request,
    "sync": _sync,
    "get_record": _race_request,
    "double_or_naught": _race_request,
    "bonus_move": _bonus_move,
    "create_tournament": _create_tournament,
    "cancel_tournament": _cancel_tournament,
    "fair_play_report": _cancel_tournament,  # (the same fields: an admin token and a tournament)
    "follow_tournament": _tournament_request,
    "register_tournament": lambda source, pools: {
        **_tournament_request(source, pools),
        **({"code": source.pick(("club-night", "WRONG", ""))} if source.integer(0, 1) else {}),
    },
    "withdraw_tournament": _tournament_request,
    "open_deal": _tournament_request,
    "review_entry": _review_entry,
    "grant_organiser": _grant_organiser,
    "rematch": _race_request,
    "replay": _replay,
    "rename": _rename,
    "history": _history,
    "leaderboard": _leaderboard,
    "profile": _profile,
    "follow": _follow,
    "unfollow": lambda source, pools: {"req": _req(source), "player": _player_id(source)},
    "friends": lambda source, pools: {"req": _req(source)},
    "challenge": _challenge,
    "decline": _race_request,
    "play_daily": _daily,
    "daily": _daily,
    "daily_calendar": _daily_calendar,
    "claim": _claim,
    "login": _login,
    "transfer_code": lambda source, pools: {"req": _req(source)},
    "redeem": _redeem,
    "forget_me": lambda source, pools: {"req": _req(source)},
    "passkey_begin": _passkey_begin,
    "passkey_finish": _passkey_finish,
}
_TAGS = tuple(_BUILDERS)


def _valid_pairs(source: Source, pools: _Pools) -> list[tuple[bytes, bytes]]:
    """The encoded (key, value) pairs of one valid client message of any type, ``type`` first."""
    tag = source.pick(_TAGS)
    fields = _BUILDERS[tag](source, pools)
    return [(_pack("type"), _pack(tag))] + [(_pack(k), _pack(v)) for k, v in fields.items()]


# ============================================================================ frames by kind


def _valid_frame(source: Source, pools: _Pools, max_bytes: int) -> tuple[str, bytes]:
    return "valid", _map(_valid_pairs(source, pools))


def _broken_frame(source: Source, pools: _Pools, max_bytes: int) -> tuple[str, bytes]:
    """A valid message with one field broken: a bad value, an unknown extra field, a duplicate
    of a field with another value, or a field left out."""
    pairs = _valid_pairs(source, pools)
    action = source.integer(0, 3)
    room = max_bytes - len(_map(pairs)) - 8
    if action == 0 or action == 1:
        index = source.integer(0, len(pairs) - 1)
        if action == 0:
            pairs[index] = (pairs[index][0], _hostile_value(source, room + len(pairs[index][1])))
            return "broken:value", _map(pairs)
        pairs.insert(source.integer(0, len(pairs)), (pairs[index][0], _hostile_value(source, room)))
        return "broken:duplicate", _map(pairs)
    if action == 2:
        key = _pack(source.pick(("extra", "Type", "req ", "", "__proto__", "TYPE", "a" * 40)))
        pairs.insert(source.integer(0, len(pairs)), (key, _hostile_value(source, room - 45)))
        return "broken:extra", _map(pairs)
    del pairs[source.integer(0, len(pairs) - 1)]
    return "broken:missing", _map(pairs)


def _valid_bytes(source: Source, pools: _Pools) -> bytes:
    return _map(_valid_pairs(source, pools))


def _hostile_deep(source: Source, pools: _Pools, max_bytes: int) -> bytes:
    return _deep(source, max_bytes)


def _hostile_deep_field(source: Source, pools: _Pools, max_bytes: int) -> bytes:
    """A create_race whose ``options`` (or an unknown field) nests thousands of levels deep."""
    head = [
        (_pack("type"), _pack("create_race")),
        (_pack("req"), _pack(source.integer(0, 99))),
        (_pack("game"), _pack("klondike")),
    ]
    key = _pack(source.pick(("options", "deep")))
    return _map(head + [(key, _deep(source, max_bytes - 40))])


def _hostile_huge_length(source: Source, pools: _Pools, max_bytes: int) -> bytes:
    if source.integer(0, 1):
        return _huge_declared(source)
    pairs = _valid_pairs(source, pools)
    pairs.append((_pack(source.pick(("name", "race", "move", "extra"))), _huge_declared(source)))
    return _map(pairs)


def _hostile_extension(source: Source, pools: _Pools, max_bytes: int) -> bytes:
    if source.integer(0, 1):
        return _extension(source)
    pairs = _valid_pairs(source, pools)
    index = source.integer(0, len(pairs) - 1)
    pairs[index] = (pairs[index][0], _extension(source))
    return _map(pairs)


def _hostile_huge_int(source: Source, pools: _Pools, max_bytes: int) -> bytes:
    if source.integer(0, 2) == 0:
        return source.pick(_EDGE_INTEGERS)
    key = source.pick(("req", "seq", "since", "seed", "before", "limit", "protocol", "deals"))
    pairs = _valid_pairs(source, pools)
    pairs = [p for p in pairs if p[0] != _pack(key)] + [(_pack(key), source.pick(_EDGE_INTEGERS))]
    return _map(pairs)


def _hostile_odd_keys(source: Source, pools: _Pools, max_bytes: int) -> bytes:
    if source.integer(0, 1):
        return _odd_key_map(source)
    pairs = _valid_pairs(source, pools)
    pairs.insert(source.integer(0, len(pairs)), (source.pick((b"\xc0", _pack(7), b"\x91\xc0", b"\xc3")), _pack(1)))
    return _map(pairs)


def _hostile_duplicate_keys(source: Source, pools: _Pools, max_bytes: int) -> bytes:
    """A message whose ``type`` or ``req`` comes twice with different values."""
    pairs = _valid_pairs(source, pools)
    key = source.pick(("type", "req"))
    value = _pack(source.pick(_TAGS)) if key == "type" else _pack(source.integer(0, 2**31 - 1))
    pairs.insert(source.integer(0, len(pairs)), (_pack(key), value))
    return _map(pairs)


def _hostile_nils(source: Source, pools: _Pools, max_bytes: int) -> bytes:
    if source.integer(0, 1):
        return _nils(source, max_bytes)
    head = [(_pack("type"), _pack("list_races")), (_pack("req"), _pack(source.integer(0, 99)))]
    return _map(head + [(_pack(source.pick(("status", "extra"))), _nils(source, max_bytes - 40))])


def _hostile_many_fields(source: Source, pools: _Pools, max_bytes: int) -> bytes:
    """A message with hundreds of distinct unknown fields."""
    count = source.integer(1, max(1, (max_bytes - 64) // 8))
    pairs = _valid_pairs(source, pools) + [(_pack(f"f{i}"), b"\xc0") for i in range(count)]
    return _map(pairs)


def _hostile_truncated(source: Source, pools: _Pools, max_bytes: int) -> bytes:
    frame = _valid_bytes(source, pools)
    return frame[: source.integer(0, len(frame) - 1)]


def _hostile_trailing(source: Source, pools: _Pools, max_bytes: int) -> bytes:
    garbage = source.pick((b"\xc0", b"\x00", b"\xc1", b"\x81", source.data(source.integer(1, 16))))
    return _valid_bytes(source, pools) + garbage


def _hostile_bit_flips(source: Source, pools: _Pools, max_bytes: int) -> bytes:
    frame = bytearray(_valid_bytes(source, pools))
    for _ in range(source.integer(1, 8)):
        bit = source.integer(0, 8 * len(frame) - 1)
        frame[bit // 8] ^= 1 << (bit % 8)
    return bytes(frame)


def _hostile_random(source: Source, pools: _Pools, max_bytes: int) -> bytes:
    return source.data(source.integer(1, min(256, max_bytes)))


def _hostile_scalar(source: Source, pools: _Pools, max_bytes: int) -> bytes:
    """The empty frame, the reserved byte, or a value that is not a map."""
    return source.pick(
        (
            b"",
            b"\xc1",
            b"\xc1\xff\x00",
            b"\xc0",
            b"\xc3",
            b"\x90",
            b"\x80",
            _pack("hello"),
            _pack(1.0),
            _pack([{"type": "hello", "name": "x"}]),
            _pack(b"\x81\xa4type"),
        )
    )


def _hostile_bad_utf8(source: Source, pools: _Pools, max_bytes: int) -> bytes:
    pairs = _valid_pairs(source, pools)
    index = source.integer(0, len(pairs) - 1)
    bad = source.pick(_BAD_UTF8)
    pairs[index] = (bad, pairs[index][1]) if source.integer(0, 1) else (pairs[index][0], bad)
    return _map(pairs)


def _hostile_wide_encoding(source: Source, pools: _Pools, max_bytes: int) -> bytes:
    """A valid message in the widest encodings (map32, str32 keys): it must still be understood."""
    pairs = _valid_pairs(source, pools)
    wide = [(b"\xdb" + struct.pack(">I", len(k) - 1) + k[1:], v) if 0xA0 <= k[0] <= 0xBF else (k, v) for k, v in pairs]
    return b"\xdf" + struct.pack(">I", len(wide)) + b"".join(k + v for k, v in wide)


#: Hostile raw frames, each a function (source, pools, max_bytes) -> bytes.
_HOSTILE: tuple[tuple[str, Callable[[Source, _Pools, int], bytes]], ...] = (
    ("scalar", _hostile_scalar),
    ("deep", _hostile_deep),
    ("deep_field", _hostile_deep_field),
    ("huge_length", _hostile_huge_length),
    ("extension", _hostile_extension),
    ("huge_int", _hostile_huge_int),
    ("odd_keys", _hostile_odd_keys),
    ("duplicate_keys", _hostile_duplicate_keys),
    ("nils", _hostile_nils),
    ("many_fields", _hostile_many_fields),
    ("truncated", _hostile_truncated),
    ("trailing", _hostile_trailing),
    ("bit_flips", _hostile_bit_flips),
    ("random", _hostile_random),
    ("bad_utf8", _hostile_bad_utf8),
    ("wide_encoding", _hostile_wide_encoding),
)


def _hostile_frame(source: Source, pools: _Pools, max_bytes: int) -> tuple[str, bytes]:
    name, make = source.pick(_HOSTILE)
    return f"hostile:{name}", make(source, pools, max_bytes)


def _text_frame(source: Source, pools: _Pools, max_bytes: int) -> tuple[str, str]:
    """A text frame: JSON of a valid message, an empty or odd string (never a lone surrogate)."""
    return "text", source.pick(
        (
            '{"type": "hello", "name": "ada"}',
            "",
            "hello",
            "\x00" * 64,
            "é" * 100,
            "\ufeff{}",
            source.data(source.integer(0, 64)).decode("latin-1"),
        )
    )


def _oversize_frame(source: Source, pools: _Pools, max_bytes: int) -> tuple[str, bytes | str]:
    """A frame bigger than ``max_bytes`` (by 1 byte up to 3 times over): a hello with a huge
    name, a run of zero bytes, or a text frame."""
    size = max_bytes + source.pick((1, source.integer(1, 3 * max_bytes)))
    kind = source.integer(0, 2)
    if kind == 0:
        return "oversize", _map([(_pack("type"), _pack("hello")), (_pack("name"), _text(size))])
    if kind == 1:
        return "oversize", b"\x00" * size
    return "oversize", "a" * size


def _fit(frame: bytes | str, max_bytes: int) -> bytes | str:
    """Cut a frame to ``max_bytes`` (a text frame at a character boundary)."""
    if isinstance(frame, str):
        return frame.encode()[:max_bytes].decode(errors="ignore")
    return frame[:max_bytes]


_KINDS: tuple[tuple[int, Callable[[Source, _Pools, int], tuple[str, bytes | str]]], ...] = (
    (30, _valid_frame),
    (30, _broken_frame),
    (36, _hostile_frame),
    (4, _text_frame),
)


def _generate(source: Source, pools: _Pools, max_bytes: int, oversize: bool) -> tuple[str, bytes | str]:
    """One frame and the name of its kind ("valid", "broken:value", "hostile:deep", ...)."""
    if oversize:
        return _oversize_frame(source, pools, max_bytes)
    kind, frame = _weighted(source, _KINDS)(source, pools, max_bytes)
    return kind, _fit(frame, max_bytes)


def fuzz_frame(
    source: Source,
    *,
    races: Sequence[str] = (),
    tournaments: Sequence[str] = (),
    max_bytes: int = MAX_FRAME_BYTES,
    oversize: bool = False,
) -> bytes | str:
    """One fuzzing frame: bytes for a binary frame, str for a text frame.

    ``races`` and ``tournaments``: codes and ids the server knows, for requests that reach past
    the lookup (joins, moves, syncs...); made-up ones are used too. ``max_bytes``: the server's
    largest frame (bytes); every frame fits it, unless ``oversize`` asks for one that does not
    (the server then closes the connection with 1009). Weights: about 30% valid messages, 30%
    valid messages with one field broken, 36% hostile raw MessagePack, 4% text frames.
    """
    return _generate(source, _Pools(races, tournaments), max_bytes, oversize)[1]


# ============================================================================ the oracle


#: The reply each request calls for, besides an `Error`.
_REPLIES: dict[type, tuple[type, ...]] = {
    Hello: (Welcome,),
    CreateRace: (RaceReply,),
    ListRaces: (Races,),
    JoinRace: (RaceReply,),
    StartRace: (RaceReply,),
    MoveRequest: (MoveResult,),
    Resign: (RaceReply,),
    Watch: (Snapshot,),
    Sync: (Snapshot, SyncPage),
    GetRecord: (RaceRecord,),
    CreateTournament: (TournamentReply,),
    CancelTournament: (TournamentReply,),
    ListTournaments: (Tournaments,),
    FollowTournament: (TournamentSnapshot,),
    RegisterTournament: (TournamentReply,),
    WithdrawTournament: (TournamentReply,),
    OpenDeal: (RaceReply,),
    ReviewEntry: (TournamentReply,),
    GrantOrganiser: (Organiser,),
    FairPlayRequest: (FairPlayReport,),
    DoubleOrNaught: (Bonus,),
    BonusMove: (Bonus,),
    Rematch: (RaceReply,),
    Replay: (ReplayStep,),
    Rename: (Renamed,),
    History: (HistoryPage,),
    Leaderboard: (LeaderboardPage,),
    GetProfile: (Profile,),
    Follow: (Following,),
    Unfollow: (Following,),
    Friends: (Following,),
    Challenge: (RaceReply,),
    Decline: (Declined,),
    PlayDaily: (RaceReply,),
    GetDaily: (DailyInfo,),
    DailyCalendar: (CalendarPage,),
    Claim: (Claimed,),
    Login: (Welcome,),
    TransferCodeRequest: (TransferCode,),
    Redeem: (Welcome,),
    ForgetMe: (Forgotten,),
    PasskeyBegin: (PasskeyOptions,),
    PasskeyFinish: (Claimed, Welcome),
}
#: Server frames that answer a request; every other frame (an event) is not an answer.
ANSWER_TYPES: tuple[type, ...] = (Error, *dict.fromkeys(kind for kinds in _REPLIES.values() for kind in kinds))
_CODES = frozenset(ErrorCode) | frozenset(IllegalCode)


def check_answer(frame: bytes | str, answer: msgspec.Struct) -> str | None:
    """What is wrong with ``answer`` (one of `ANSWER_TYPES`) as the server's answer to ``frame``,
    or None when it is right.

    Right means: an `Error` with a known code and a reason, whose code is the one
    `server.protocol.decode` gives the frame (or ``rate_limited``) and whose ``req`` is the
    frame's readable ``req``; or, for a frame that decodes, the reply its request calls for,
    echoing its ``req`` (a move: a `MoveResult` for the same race and ``seq``, with a code when
    refused and a board when accepted).

    >>> frame = encode(ListRaces(req=9))
    >>> check_answer(frame, Races(req=9, races=[])) is None
    True
    >>> check_answer(frame, Error(code="bad_field", reason="no", req=9))
    'Error bad_field to a frame that decodes as ListRaces'
    >>> check_answer(b"\\xc1", Error(code="bad_frame", reason="not MessagePack"))
    """
    expected: ProtocolError | None = None
    message: ClientMessage | None = None
    try:
        message = decode(frame)
    except ProtocolError as exc:
        expected = exc
    except Exception as exc:  # decode promises ProtocolError only: anything else is a finding
        return f"server.protocol.decode raised {type(exc).__name__}: {exc}"
    if isinstance(answer, Error):
        return _check_error(frame, answer, message, expected)
    if message is None:
        return f"{type(answer).__name__} to a frame the protocol refuses ({expected.code if expected else '?'})"
    if not isinstance(answer, _REPLIES[type(message)]):
        return f"{type(answer).__name__} to {type(message).__name__}"
    if isinstance(answer, MoveResult):
        return _check_move_result(message, answer)  # type: ignore[arg-type]
    if isinstance(answer, Welcome):  # (a welcome carries no request number)
        return None
    if getattr(answer, "req", None) != getattr(message, "req", None):
        return f"{type(answer).__name__} req {getattr(answer, 'req', None)} to req {getattr(message, 'req', None)}"
    return None


def _check_error(
    frame: bytes | str, error: Error, message: ClientMessage | None, expected: ProtocolError | None
) -> str | None:
    if error.code not in _CODES or not error.reason:
        return f"Error with code {error.code!r} and reason {error.reason!r}"
    if error.code == ErrorCode.RATE_LIMITED:
        want = request_number(frame)
    elif message is None:
        assert expected is not None
        if (error.code, error.req) != (expected.code, expected.req) and _deep_either_way(frame, error, expected):
            return None
        if error.code != expected.code:
            return f"Error {error.code} to a frame the protocol refuses with {expected.code}"
        want = expected.req
    elif isinstance(message, MoveRequest):
        return f"Error {error.code} to a move (a move is answered by a MoveResult)"
    elif error.code in (ErrorCode.BAD_FRAME, ErrorCode.TEXT_FRAME, ErrorCode.UNKNOWN_TYPE, ErrorCode.BAD_FIELD):
        return f"Error {error.code} to a frame that decodes as {type(message).__name__}"
    else:
        want = getattr(message, "req", None)
    if error.req != want:
        return f"Error {error.code} with req {error.req} to a frame whose req is {want}"
    return None


#: Nesting beyond which a frame may get ``bad_frame`` (and no ``req``) instead of its own code,
#: or its own code where this process finds ``bad_frame``: decoding it runs into Python's
#: recursion limit at a depth that depends on how deep in the stack the decoder is called.
_DEEP = 200


def _deep_either_way(frame: bytes | str, error: Error, expected: ProtocolError) -> bool:
    """Whether the server's ``error`` and this process's ``expected`` may differ only because one
    of them met the recursion limit on a deep frame: one says ``bad_frame``, one lacks the ``req``
    or both have the same, and the frame nests deeper than `_DEEP`."""
    same_req = error.req == expected.req or None in (error.req, expected.req)
    return ErrorCode.BAD_FRAME in (error.code, expected.code) and same_req and _nesting(frame) > _DEEP


def _nesting(frame: bytes | str) -> int:
    """How deeply the maps and arrays at the start of ``frame`` nest, read from their headers
    alone, without recursion (0: a scalar; reading stops at a byte no value starts with, or at
    the end of the frame).

    >>> _nesting(b"\\x91" * 5000 + b"\\xc0"), _nesting(b"\\x82\\xa1a\\x91\\x90\\xa1b\\xc0"), _nesting(b"\\xc1")
    (5000, 3, 0)
    """
    data = frame.encode() if isinstance(frame, str) else frame
    left = [1]  # values still to read at each open level
    pos = deepest = 0
    while left and pos < len(data):
        left[-1] -= 1
        items, pos = _items(data, pos)
        if items is None:
            return deepest
        if items >= 0:  # a map or an array, empty or not
            deepest = max(deepest, len(left))
            left.append(items)
        while left and left[-1] <= 0:
            left.pop()
    return deepest


#: Scalars of a fixed size: first byte -> bytes after it.
_FIXED = {
    0xC0: 0,
    0xC2: 0,
    0xC3: 0,
    0xCA: 4,
    0xCB: 8,
    0xCC: 1,
    0xCD: 2,
    0xCE: 4,
    0xCF: 8,
    0xD0: 1,
    0xD1: 2,
    0xD2: 4,
    0xD3: 8,
    0xD4: 2,
    0xD5: 3,
    0xD6: 5,
    0xD7: 9,
    0xD8: 17,
}
#: Str, bin and ext: first byte -> (bytes of the length after it, bytes between the length and the data).
_SIZED = {
    0xC4: (1, 0),
    0xC5: (2, 0),
    0xC6: (4, 0),
    0xC7: (1, 1),
    0xC8: (2, 1),
    0xC9: (4, 1),
    0xD9: (1, 0),
    0xDA: (2, 0),
    0xDB: (4, 0),
}
#: Arrays and maps beyond the fix forms: first byte -> (bytes of the count after it, values per entry).
_CONTAINERS = {0xDC: (2, 1), 0xDD: (4, 1), 0xDE: (2, 2), 0xDF: (4, 2)}


def _items(data: bytes, pos: int) -> tuple[int | None, int]:
    """The value starting at ``pos``: how many values it holds (a map or array; -1 for a scalar;
    None if no value starts there), and where the next one starts (the first inside it, for a
    map or array)."""
    head = data[pos]
    if head <= 0x7F or head >= 0xE0:
        return -1, pos + 1
    if head <= 0x8F:
        return 2 * (head & 0x0F), pos + 1
    if head <= 0x9F:
        return head & 0x0F, pos + 1
    if head <= 0xBF:
        return -1, pos + 1 + (head & 0x1F)
    if head in _FIXED:
        return -1, pos + 1 + _FIXED[head]
    if head in _SIZED:
        width, extra = _SIZED[head]
        return -1, pos + 1 + width + extra + int.from_bytes(data[pos + 1 : pos + 1 + width], "big")
    if head in _CONTAINERS:
        width, per_entry = _CONTAINERS[head]
        return per_entry * int.from_bytes(data[pos + 1 : pos + 1 + width], "big"), pos + 1 + width
    return None, pos


def _check_move_result(message: MoveRequest, result: MoveResult) -> str | None:
    if result.race.upper() != message.race.upper() or result.seq != message.seq:
        return f"MoveResult for {result.race} #{result.seq} to a move in {message.race} #{message.seq}"
    if not result.ok and (result.code not in _CODES or not result.reason):
        return f"refused MoveResult with code {result.code!r} and reason {result.reason!r}"
    if result.ok and result.board is None:
        return "accepted MoveResult without a board"
    return None


# ============================================================================ the campaign


@dataclass
class Failure:
    """One kind of thing that went wrong: ``kind`` (unanswered, wrong_answer, closed, connect,
    bystander, server), a sentence, the first frame that caused it (hex of its bytes; a text
    frame's UTF-8), and how many times the same sentence came up."""

    kind: str
    detail: str
    frame_hex: str = ""
    count: int = 1


@dataclass
class Figures:
    """What a campaign did and saw. Times in seconds, memory in KiB, latencies in milliseconds.

    ``frames``: frames sent by the fuzzing connections, by kind in ``kinds``; ``answers``:
    answers by type name; ``codes``: refusals by code (``Error`` codes, and ``move:<code>`` for
    refused moves); ``unanswered``: frames with no answer in time; ``wrong_answers``: answers
    `check_answer` finds wrong (or server frames that do not decode); ``expected_closes`` and
    ``unexpected_closes``: closes by the server, by close code (1009 after an oversize frame is
    expected); ``connect_failures``: fuzzing connections that could not open or were not
    welcomed; ``crashes``: connections the server's handler failed on (each is closed with 1011;
    the server's log may show fewer, since its repeat filter writes one a kind per 10 s) and
    ``tracebacks``: "Traceback" lines in its log;
    ``server_alive``: the server process was still running at the end (None: not ours to tell);
    ``rss_*_kib``: its resident memory, and ``rss_timeline`` that memory every `RSS_EVERY_S`
    seconds of fuzzing (seconds, KiB); ``health_start``/``health_end``: its ``/healthz``;
    ``bystander_*``: moves played in the bystander's race, accepted or refused, with each
    move's answer latency. ``failures``: each distinct failure once, with its first frame.
    """

    seed: int = 0
    url: str = ""
    frames: int = 0
    elapsed_s: float = 0.0
    kinds: Counter[str] = field(default_factory=Counter)
    answers: Counter[str] = field(default_factory=Counter)
    codes: Counter[str] = field(default_factory=Counter)
    unanswered: int = 0
    wrong_answers: int = 0
    connect_failures: int = 0
    expected_closes: Counter[int] = field(default_factory=Counter)
    unexpected_closes: Counter[int] = field(default_factory=Counter)
    crashes: int = 0
    tracebacks: int = 0
    server_alive: bool | None = None
    rss_start_kib: int | None = None
    rss_peak_kib: int | None = None
    rss_end_kib: int | None = None
    rss_timeline: list[tuple[float, int]] = field(default_factory=list)
    health_start: dict[str, object] | None = None
    health_end: dict[str, object] | None = None
    bystander_played: int = 0
    bystander_refused: int = 0
    bystander_latencies_ms: list[float] = field(default_factory=list, repr=False)
    failures: list[Failure] = field(default_factory=list)

    #: Distinct failures kept in detail; the counts hold them all.
    MAX_FAILURES = 40
    #: Seconds between the points of ``rss_timeline``.
    RSS_EVERY_S = 5.0

    @property
    def frames_per_s(self) -> float:
        return self.frames / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def ok(self) -> bool:
        """No unanswered or wrong answer, no unexpected close, no crash, the server alive, the
        bystander's every move accepted (and at least one played)."""
        return (
            not self.unanswered
            and not self.wrong_answers
            and not self.unexpected_closes
            and not self.connect_failures
            and not self.crashes
            and not self.tracebacks
            and self.server_alive is not False
            and not self.bystander_refused
            and self.bystander_played > 0
            and not any(f.kind in ("bystander", "server") for f in self.failures)
        )

    def latency_ms(self, quantile: float) -> float | None:
        """The bystander's answer latency at ``quantile`` (0.5: the median), ms; None if no move."""
        values = sorted(self.bystander_latencies_ms)
        if not values:
            return None
        return values[min(len(values) - 1, int(quantile * len(values)))]

    def fail(self, kind: str, detail: str, frame: bytes | str = b"") -> None:
        """Record one failure: counted with the same ``detail`` seen before, else kept with its
        frame (while fewer than `MAX_FAILURES` are kept)."""
        for failure in self.failures:
            if failure.kind == kind and failure.detail == detail:
                failure.count += 1
                return
        if len(self.failures) < self.MAX_FAILURES:
            data = frame.encode() if isinstance(frame, str) else frame
            self.failures.append(Failure(kind, detail, data.hex()))

    def to_json(self) -> dict[str, object]:
        """The figures as plain JSON values (the bystander's latencies as p50/p99 only)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "bystander_latencies_ms"}
        out["failures"] = [dataclasses.asdict(f) for f in self.failures]
        for name in ("kinds", "answers", "codes"):
            out[name] = dict(getattr(self, name).most_common())
        for name in ("expected_closes", "unexpected_closes"):
            out[name] = {str(k): v for k, v in getattr(self, name).items()}
        out.update(
            frames_per_s=round(self.frames_per_s, 1),
            ok=self.ok,
            bystander_p50_ms=self.latency_ms(0.5),
            bystander_p99_ms=self.latency_ms(0.99),
        )
        return out


_BYSTANDER_RACES = 8  # the bystander's races, played in turn (max_moves caps each: 8 x 5000 moves)
_BYSTANDER_PERIOD_S = 0.05
_CONNECT_TRIES = 5
_CRASH = re.compile(r"connection handler failed(?:.*\((\d+) more like it)?")


@dataclass
class _Campaign:
    """The state the tasks of one campaign share."""

    figures: Figures
    url: str
    total: int
    oversize_share: float
    max_bytes: int
    answer_timeout_s: float
    hold_s: float = 0.0  # seconds more a request the server may hold gets (`answer_limit_s`)
    races: deque[str] = field(default_factory=lambda: deque(maxlen=64))
    tournaments: deque[str] = field(default_factory=lambda: deque(maxlen=16))
    issued: int = 0
    started: float | None = None  # perf_counter() when the fuzzing connections started
    fuzzing_done: asyncio.Event = field(default_factory=asyncio.Event)

    def take(self) -> bool:
        """Claim the next frame to send; False once ``total`` frames are claimed."""
        if self.issued >= self.total:
            return False
        self.issued += 1
        return True

    def learn(self, answer: msgspec.Struct) -> None:
        """Remember race codes and tournament ids the server named, for later frames to use."""
        if isinstance(answer, RaceReply):
            self.races.append(answer.race.code)
        elif isinstance(answer, Races):
            self.races.extend(r.code for r in answer.races[:4])
        elif isinstance(answer, (TournamentReply, TournamentSnapshot)):
            self.tournaments.append(answer.tournament.id)
        elif isinstance(answer, Tournaments):
            self.tournaments.extend(t.id for t in answer.tournaments[:4])


async def _open(url: str, name: str, timeout_s: float) -> ClientConnection:
    """Connect and say hello; raises RuntimeError if the hello is not welcomed."""
    ws = await connect(url, compression=None, max_size=None, ping_interval=None, open_timeout=timeout_s)
    await ws.send(encode(Hello(name=name)))
    async with asyncio.timeout(timeout_s):
        while True:
            answer = decode_server(await ws.recv(decode=False))
            if isinstance(answer, ANSWER_TYPES):
                break
    if not isinstance(answer, Welcome):
        await ws.close()
        raise RuntimeError(f"hello answered with {answer!r}")
    return ws


async def _answer_to(
    ws: ClientConnection, frame: bytes | str, events: list[msgspec.Struct] | None = None
) -> msgspec.Struct:
    """Send ``frame``, then read until a frame that is an answer; the events read meanwhile are
    skipped, or kept in ``events``."""
    await ws.send(frame)
    while True:
        answer = decode_server(await ws.recv(decode=False))
        if isinstance(answer, ANSWER_TYPES):
            return answer
        if events is not None:
            events.append(answer)


async def _fuzz_connection(campaign: _Campaign, index: int, rng: random.Random) -> None:
    """One fuzzing connection: frames in lockstep until the campaign's frames run out; after a
    close or a frame left unanswered, a new connection (and a new hello). Gives up after
    `_CONNECT_TRIES` failed connections in a row (the server is gone)."""
    figures, source = campaign.figures, RandomSource(rng)
    failed = 0
    while campaign.issued < campaign.total and failed < _CONNECT_TRIES:
        try:
            ws = await _open(campaign.url, f"fuzz{index}", campaign.answer_timeout_s)
        except (OSError, RuntimeError, TimeoutError, ConnectionClosed, msgspec.DecodeError) as exc:
            failed += 1
            figures.connect_failures += 1
            figures.fail("connect", f"a fuzzing connection could not open: {exc!r}")
            await asyncio.sleep(0.2 * failed)
            continue
        failed = 0
        try:
            await _fuzz_frames(campaign, ws, source, rng)
        finally:
            await ws.close()


def asks_winnable(frame: bytes | str) -> bool:
    """True when ``frame`` is a MessagePack map whose ``winnable`` field is true: a request the
    server may hold for its ``winnable_wait_s`` (any other frame, hostile ones included: False).

    >>> asks_winnable(encode(CreateRace(req=1, game="golf", winnable=True))), asks_winnable(b"\\xc1")
    (True, False)
    """
    if isinstance(frame, str):
        return False
    try:
        value = msgspec.msgpack.decode(frame)
    except (msgspec.DecodeError, RecursionError, ValueError):
        return False
    return isinstance(value, dict) and value.get("winnable") is True


def answer_limit_s(frame: bytes | str, answer_timeout_s: float, hold_s: float) -> float:
    """Seconds ``frame``'s answer may take before it counts as unanswered: ``answer_timeout_s``,
    plus ``hold_s`` for a request the server may hold (`asks_winnable`)."""
    return answer_timeout_s + hold_s if asks_winnable(frame) else answer_timeout_s


async def send_frame(campaign: _Campaign, ws: ClientConnection, kind: str, frame: bytes | str, oversize: bool) -> bool:
    """Send one frame of kind ``kind`` and count what comes of it in the campaign's figures;
    False when the connection must be dropped (no answer within `answer_limit_s`, a close, or an
    answer that does not decode)."""
    figures = campaign.figures
    figures.frames += 1
    figures.kinds[kind] += 1
    limit_s = answer_limit_s(frame, campaign.answer_timeout_s, campaign.hold_s)
    try:
        async with asyncio.timeout(limit_s):
            answer = await _answer_to(ws, frame)
    except TimeoutError:
        figures.unanswered += 1
        figures.fail("unanswered", f"no answer within {limit_s:g} s ({kind})", frame)
        return False
    except ConnectionClosed as exc:
        code = exc.rcvd.code if exc.rcvd is not None else 1006
        if oversize and code == 1009:
            figures.expected_closes[code] += 1
        else:
            figures.unexpected_closes[code] += 1
            reason = exc.rcvd.reason if exc.rcvd is not None else ""
            figures.fail("closed", f"closed with {code} {reason!r} after a {kind} frame", frame)
        return False
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        figures.wrong_answers += 1
        figures.fail("wrong_answer", f"a server frame that does not decode: {exc}", frame)
        return False
    _count(campaign, kind, frame, answer, oversize)
    return not isinstance(answer, Forgotten)  # (the server closes a forgotten player's connection)


async def _fuzz_frames(campaign: _Campaign, ws: ClientConnection, source: RandomSource, rng: random.Random) -> None:
    """Send frames on one open connection until they run out or the connection must be dropped."""
    pools = _Pools(campaign.races, campaign.tournaments)
    while campaign.take():
        oversize = rng.random() < campaign.oversize_share
        kind, frame = _generate(source, pools, campaign.max_bytes, oversize)
        if not await send_frame(campaign, ws, kind, frame, oversize):
            return


def _count(campaign: _Campaign, kind: str, frame: bytes | str, answer: msgspec.Struct, oversize: bool) -> None:
    figures = campaign.figures
    figures.answers[type(answer).__name__] += 1
    if isinstance(answer, Error):
        figures.codes[answer.code] += 1
    elif isinstance(answer, MoveResult) and not answer.ok:
        figures.codes[f"move:{answer.code}"] += 1
    problem = "an oversize frame was answered" if oversize else check_answer(frame, answer)
    if problem is not None:
        figures.wrong_answers += 1
        figures.fail("wrong_answer", f"{problem} ({kind})", frame)
    campaign.learn(answer)


# ----------------------------------------------------------------------------- the bystander


@dataclass
class _BystanderRace:
    code: str
    seq: int = 0
    stock: int = 0  # cards left in the stock: "deal" while there are some, else "redeal"


async def _bystander_setup(ws: ClientConnection, count: int) -> list[_BystanderRace]:
    """Create, join and start ``count`` Klondike races (countdown 0, the longest time limit) and
    wait for each deal. Raises RuntimeError if the server refuses any step."""
    races = []
    events: list[msgspec.Struct] = []
    for index in range(count):
        created = await _answer_to(
            ws,
            encode(CreateRace(req=2 * index + 1, game="klondike", countdown_s=0, time_limit_s=86_400, join=True)),
            events,
        )
        if not isinstance(created, RaceReply):
            raise RuntimeError(f"the bystander could not create its race: {created!r}")
        code = created.race.code
        started = await _answer_to(ws, encode(StartRace(req=2 * index + 2, race=code)), events)
        if not isinstance(started, RaceReply):
            raise RuntimeError(f"the bystander could not start its race: {started!r}")
        while not any(isinstance(e, RaceStarted) and e.race == code for e in events):
            events.append(decode_server(await ws.recv(decode=False)))
        deal = next(e for e in events if isinstance(e, RaceStarted) and e.race == code)
        races.append(_BystanderRace(code, stock=len(deal.board.piles.get("s", ()))))
    return races


async def _bystander_move(ws: ClientConnection, race: _BystanderRace, figures: Figures) -> None:
    """Play one legal move in ``race`` ("deal", or "redeal" once the stock is empty) and check
    that it is accepted; records its latency (ms)."""
    race.seq += 1
    move = "deal" if race.stock else "redeal"
    started = time.perf_counter()
    await ws.send(encode(MoveRequest(race=race.code, seq=race.seq, move=move)))
    while True:
        answer = decode_server(await ws.recv(decode=False))
        if isinstance(answer, MoveResult) and answer.race == race.code and answer.seq == race.seq:
            break
    figures.bystander_latencies_ms.append((time.perf_counter() - started) * 1000)
    if answer.ok and answer.board is not None:
        figures.bystander_played += 1
        race.stock = len(answer.board.piles.get("s", ()))
    else:
        figures.bystander_refused += 1
        race.seq -= 1  # a refusal uses up no move number
        figures.fail("bystander", f"the bystander's {move!r} in {race.code} was refused: {answer.code} {answer.reason}")


async def _bystander(campaign: _Campaign, ready: asyncio.Event) -> None:
    """A player on its own connection plays its races in turn, one move every 50 ms, until the
    fuzzing is over, then one move more."""
    figures, timeout_s = campaign.figures, campaign.answer_timeout_s
    ws: ClientConnection | None = None
    try:
        ws = await _open(campaign.url, "bystander", timeout_s)
        async with asyncio.timeout(timeout_s * _BYSTANDER_RACES):
            races = await _bystander_setup(ws, _BYSTANDER_RACES)
        campaign.races.extend(r.code for r in races)
        async with contextlib.aclosing(_ticks(_BYSTANDER_PERIOD_S)) as ticks:
            async for tick in ticks:
                async with asyncio.timeout(timeout_s):
                    await _bystander_move(ws, races[tick % len(races)], figures)
                ready.set()
                if campaign.fuzzing_done.is_set():
                    break
    except (OSError, RuntimeError, TimeoutError, ConnectionClosed, msgspec.DecodeError) as exc:
        figures.fail("bystander", f"the bystander failed: {exc!r}")
    finally:
        ready.set()
        if ws is not None:
            await ws.close()


async def _ticks(period_s: float) -> AsyncGenerator[int, None]:
    """0, 1, 2, ... on a grid of ``period_s`` seconds of the loop's clock (no drift; a tick that
    comes late skips the grid points it missed rather than catching up in a burst)."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    for tick in itertools.count():
        yield tick
        await asyncio.sleep(start + (math.floor((loop.time() - start) / period_s) + 1) * period_s - loop.time())


# ------------------------------------------------------------------------- the server process

#: Seconds the campaign's own server holds a request for winnable deals at most.
_FUZZ_WINNABLE_WAIT_S = 2.0
#: The limits of the campaign's own server: the frame rate is raised, so that frames reach the
#: decoder, and the solver's budgets for winnable deals are cut, so that a request for them is
#: held briefly (see the module docstring); every other limit stays at its default.
_FUZZ_LIMITS: dict[str, object] = {
    "rate_per_s": 1_000_000,
    "burst": 1_000_000,
    "winnable_wait_s": _FUZZ_WINNABLE_WAIT_S,
    "winnable_seconds": 0.5,
}


def _rss_kib(server: ServerProcess) -> int | None:
    """The server's resident memory in KiB; None once it has died."""
    try:
        return round(server.rss_mib() * 1024)
    except (OSError, ServerProcessError):
        return None


def _crashes(log: str) -> tuple[int, int]:
    """("connection handler failed" records, "Traceback" lines) in a server log; records that the
    server's repeat filter left out are counted from the note on the next one."""
    handler_failures = tracebacks = 0
    for line in log.splitlines():
        tracebacks += line.startswith("Traceback")
        if match := _CRASH.search(line):
            handler_failures += 1 + int(match.group(1) or 0)
    return handler_failures, tracebacks


def _first_failure(log: str) -> str:
    """The first error a server log holds, with its traceback ("" if none)."""
    lines = log.splitlines()
    start = next((i for i, line in enumerate(lines) if " ERROR " in line or line.startswith("Traceback")), None)
    if start is None:
        return ""
    end = next((i for i in range(start + 1, len(lines)) if lines[i][:1].isdigit()), len(lines))
    return "\n".join(lines[start:end])


async def _sample(
    campaign: _Campaign, server: ServerProcess | None, interval_s: float, progress: Callable[[Figures], None] | None
) -> None:
    """Every ``interval_s`` seconds: the time so far, the server's memory (its peak kept), and the
    progress callback."""
    figures = campaign.figures
    while True:
        started = campaign.started
        fuzzing = started is not None and not campaign.fuzzing_done.is_set()
        if started is not None and fuzzing:
            figures.elapsed_s = time.perf_counter() - started
        if server is not None and (rss := _rss_kib(server)) is not None:
            figures.rss_peak_kib = max(figures.rss_peak_kib or 0, rss)
            last = figures.rss_timeline[-1][0] if figures.rss_timeline else -figures.RSS_EVERY_S
            if fuzzing and figures.elapsed_s - last >= figures.RSS_EVERY_S:
                figures.rss_timeline.append((round(figures.elapsed_s, 1), rss))
        if progress is not None:
            progress(figures)
        await asyncio.sleep(interval_s)


async def _settle(url: str, sessions: object, timeout_s: float = 5.0) -> dict[str, object] | None:
    """``/healthz`` once the server's sessions are back to ``sessions`` (or after ``timeout_s``)."""
    deadline = time.monotonic() + timeout_s
    while True:
        health = await fetch_health(url)
        if health is None or health.get("sessions") == sessions or time.monotonic() > deadline:
            return health
        await asyncio.sleep(0.05)


async def run_campaign(
    *,
    frames: int,
    connections: int = 8,
    seed: int = 0,
    url: str | None = None,
    oversize_share: float = 0.001,
    max_bytes: int = MAX_FRAME_BYTES,
    answer_timeout_s: float = 10.0,
    hold_s: float | None = None,
    sample_interval_s: float = 0.5,
    progress: Callable[[Figures], None] | None = None,
) -> Figures:
    """Fuzz a server with ``frames`` frames over ``connections`` connections; return the figures.

    ``url``: a running server to fuzz, whose rate limit is raised so that frames reach the
    decoder (None: start ``arena serve`` so in a child process and stop it at the end; only then
    are its memory, log and survival checked; its other limits stay at their defaults). ``seed``:
    makes each connection's frames reproducible (their race codes come from the server's answers).
    ``oversize_share``: the fraction of frames made bigger than ``max_bytes`` (bytes, the server's
    largest frame): each closes its connection with 1009, which is expected. ``answer_timeout_s``:
    seconds to wait for each answer before the frame counts as unanswered; ``hold_s``: seconds more
    for a request asking for winnable deals, which the server may hold that long (default: the
    ``winnable_wait_s`` of the server started, or the default one of a server given by ``url``).
    Every process started (the child server and its par workers) is stopped at the end.
    ``progress``: called
    with the figures every ``sample_interval_s`` seconds (and at the end).
    """
    server = ServerProcess(_FUZZ_LIMITS) if url is None else None
    figures = Figures(seed=seed)
    try:
        if server is not None:
            await server.start()
            url = server.url
        assert url is not None  # given, or the URL of the server started above
        if hold_s is None:
            hold_s = _FUZZ_WINNABLE_WAIT_S if server is not None else ServerConfig().winnable_wait_s
        campaign = _Campaign(figures, url, frames, oversize_share, max_bytes, answer_timeout_s, hold_s)
        figures.url = campaign.url
        figures.health_start = await fetch_health(campaign.url)
        figures.rss_start_kib = figures.rss_peak_kib = _rss_kib(server) if server is not None else None
        await _run_tasks(campaign, connections, seed, server, sample_interval_s, progress)
        figures.crashes = figures.unexpected_closes[1011]
        if server is not None:
            figures.server_alive = server.alive
            figures.rss_end_kib = _rss_kib(server)
            log = server.log_text()
            logged, figures.tracebacks = _crashes(log)
            figures.crashes = max(logged, figures.crashes)
            if not server.alive:
                figures.fail("server", "the server process died: " + "\n".join(log.splitlines()[-40:]))
            elif logged or figures.tracebacks:
                figures.fail("server", f"the server logged failures, first:\n{_first_failure(log)}")
        baseline = (figures.health_start or {}).get("sessions")
        figures.health_end = await _settle(campaign.url, baseline)
        if server is not None and (figures.health_end or {}).get("sessions") != baseline:
            figures.fail("server", f"sessions did not go back to {baseline}: {figures.health_end}")
    finally:
        if server is not None:
            server.stop()
    if progress is not None:
        progress(figures)
    return figures


async def _run_tasks(
    campaign: _Campaign,
    connections: int,
    seed: int,
    server: ServerProcess | None,
    sample_interval_s: float,
    progress: Callable[[Figures], None] | None,
) -> None:
    """The bystander first (its races exist before the flood), then the fuzzing connections."""
    ready = asyncio.Event()
    bystander = asyncio.create_task(_bystander(campaign, ready))
    sampler = asyncio.create_task(_sample(campaign, server, sample_interval_s, progress))
    try:
        await ready.wait()
        campaign.started = time.perf_counter()
        async with asyncio.TaskGroup() as group:
            for index in range(connections):
                group.create_task(_fuzz_connection(campaign, index, random.Random(f"{seed}/{index}")))
        campaign.fuzzing_done.set()
        campaign.figures.elapsed_s = time.perf_counter() - campaign.started
        await bystander
    finally:
        for task in (bystander, sampler):
            task.cancel()
        await asyncio.gather(bystander, sampler, return_exceptions=True)


# ============================================================================ the command


def add_fuzz_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the flags of ``arena fuzz``: --frames, --connections, --seed, --server, --oversize-share, --json.

    >>> parser = argparse.ArgumentParser()
    >>> add_fuzz_arguments(parser)
    >>> args = parser.parse_args(["--frames", "500", "--seed", "7"])
    >>> args.frames, args.connections, args.seed, args.server, args.oversize_share
    (500, 8, 7, None, 0.001)
    """
    parser.add_argument(
        "--frames", type=bounded(int, low=1), default=100_000, metavar="N", help="frames to send (default 100000)"
    )
    parser.add_argument(
        "--connections",
        type=bounded(int, low=1),
        default=8,
        metavar="C",
        help="fuzzing connections, each in lockstep (default 8)",
    )
    parser.add_argument("--seed", type=int, default=None, metavar="S", help="random seed (default: a new one, printed)")
    parser.add_argument(
        "--server",
        default=None,
        metavar="URL",
        help="fuzz this running server, started with its rate limit raised (`arena serve "
        "--rate-per-s 1000000 --burst 1000000`) so that frames reach the decoder (default: start "
        "one like that in a child process, and check its memory, log and survival too)",
    )
    parser.add_argument(
        "--oversize-share",
        type=bounded(float, low=0, high=1),
        default=0.001,
        metavar="F",
        help="fraction of frames over the size limit; each closes its connection with 1009 (default 0.001)",
    )
    parser.add_argument("--json", default=None, metavar="FILE", help="also write the figures to FILE as JSON")


async def run_fuzz(args: argparse.Namespace, console: Console) -> int:
    """Run ``arena fuzz``: the campaign, a progress bar, then the figures; 0 if nothing failed, else 1."""
    seed = args.seed if args.seed is not None else secrets.randbelow(2**32)
    target = args.server or "its own server (a child process)"
    console.print(f"Fuzzing {escape(target)}: {args.frames} frames over {args.connections} connections, seed {seed}")
    columns = (
        TextColumn("fuzzing"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]} frames/s"),
        TextColumn("[red]{task.fields[failed]}"),
        TimeRemainingColumn(),
    )
    tenths = [0]  # progress lines printed, when the console is not a terminal (a log)
    with Progress(*columns, console=console, transient=True, disable=not console.is_terminal) as bar:
        task = bar.add_task("fuzz", total=args.frames, rate="-", failed="")

        def show(figures: Figures) -> None:
            failed = figures.unanswered + figures.wrong_answers + sum(figures.unexpected_closes.values())
            bar.update(
                task,
                completed=figures.frames,
                rate=f"{figures.frames_per_s:,.0f}",
                failed=f"{failed} failed" if failed else "",
            )
            if not console.is_terminal and figures.frames * 10 >= (tenths[0] + 1) * args.frames:
                tenths[0] = figures.frames * 10 // args.frames
                console.print(f"{figures.frames:,} frames sent, {figures.frames_per_s:,.0f}/s, {failed} failed")

        try:
            figures = await run_campaign(
                frames=args.frames,
                connections=args.connections,
                seed=seed,
                url=args.server,
                oversize_share=args.oversize_share,
                progress=show,
            )
        except RuntimeError as exc:
            console.print(f"[red]error:[/] {escape(str(exc))}")
            return 2
    print_figures(figures, console)
    if args.json:
        Path(args.json).write_text(json.dumps(figures.to_json(), indent=2) + "\n")
        console.print(f"Figures written to {escape(args.json)}")
    return 0 if figures.ok else 1


def _mib(kib: int | None) -> str:
    return "-" if kib is None else f"{kib / 1024:.1f}"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def print_figures(figures: Figures, console: Console) -> None:
    """Print a campaign's figures as tables: the summary, answers by type, refusals by code, failures."""
    summary = Table(title=f"Fuzz campaign against {escape(figures.url)} (seed {figures.seed})", show_header=False)
    summary.add_column(style="bold")
    summary.add_column(justify="right")
    closes = ", ".join(f"{code}: {n}" for code, n in sorted(figures.unexpected_closes.items())) or "0"
    expected = ", ".join(f"{code}: {n}" for code, n in sorted(figures.expected_closes.items())) or "0"
    health = figures.health_end or {}
    rows = [
        ("frames sent", f"{figures.frames:,}"),
        ("frames/s", f"{figures.frames_per_s:,.0f} (over {figures.elapsed_s:.1f} s)"),
        ("by kind", ", ".join(f"{k}: {n:,}" for k, n in sorted(_kind_groups(figures.kinds).items()))),
        ("answered", f"{sum(figures.answers.values()):,}"),
        ("unanswered", str(figures.unanswered)),
        ("wrong answers", str(figures.wrong_answers)),
        ("expected closes (1009 after oversize)", expected),
        ("unexpected closes", closes),
        ("connections that failed to open", str(figures.connect_failures)),
        ("crashes (handler failures / tracebacks logged)", f"{figures.crashes} / {figures.tracebacks}"),
        ("server alive", {True: "yes", False: "NO", None: "- (not ours)"}[figures.server_alive]),
        (
            "RSS start / peak / end, MiB",
            f"{_mib(figures.rss_start_kib)} / {_mib(figures.rss_peak_kib)} / {_mib(figures.rss_end_kib)}",
        ),
        ("healthz at the end", ", ".join(f"{k}={v}" for k, v in health.items() if k != "status") or "-"),
        ("bystander moves accepted / refused", f"{figures.bystander_played} / {figures.bystander_refused}"),
        ("bystander ack latency p50 / p99, ms", f"{_ms(figures.latency_ms(0.5))} / {_ms(figures.latency_ms(0.99))}"),
    ]
    for name, value in rows:
        summary.add_row(name, escape(value))
    console.print(summary)
    console.print(_counter_table("Answers by type", "answer", figures.answers))
    console.print(_counter_table("Refusals by code", "code", figures.codes))
    for failure in figures.failures:
        console.print(
            f"[red]{escape(failure.kind)} (x{failure.count}):[/] {escape(failure.detail)}"
            + (f"\n  first frame: {failure.frame_hex[:400]}" if failure.frame_hex else "")
        )
    console.print("[green]no failures[/]" if figures.ok else "[red]FAILED[/]")


def _kind_groups(kinds: Counter[str]) -> Counter[str]:
    groups: Counter[str] = Counter()
    for kind, count in kinds.items():
        groups[kind.partition(":")[0]] += count
    return groups


def _counter_table(title: str, heading: str, counts: Counter[str]) -> Table:
    table = Table(title=title)
    table.add_column(heading)
    table.add_column("count", justify="right")
    table.add_column("share", justify="right")
    total = sum(counts.values()) or 1
    for name, count in counts.most_common():
        table.add_row(escape(name), f"{count:,}", f"{100 * count / total:.1f}%")
    return table
